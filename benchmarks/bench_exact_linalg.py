import time, numpy as np, sympy
from fractions import Fraction as F
from flint import fmpq_mat, fmpq
rng = np.random.default_rng(0)
def gj_inv(A):
    n=len(A); M=[[F(x) for x in row]+[F(int(i==j)) for j in range(n)] for i,row in enumerate(A)]
    for c in range(n):
        p=next(i for i in range(c,n) if M[i][c]!=0); M[c],M[p]=M[p],M[c]
        pv=M[c][c]; M[c]=[x/pv for x in M[c]]
        for i in range(n):
            if i!=c and M[i][c]!=0:
                f=M[i][c]; M[i]=[a-f*b for a,b in zip(M[i],M[c])]
    return [row[n:] for row in M]
def fl_inv(A):
    n=len(A); m=fmpq_mat(n,n,[fmpq(x.numerator,x.denominator) for row in A for x in row]).inv()
    return [[F(int(m[i,j].p),int(m[i,j].q)) for j in range(n)] for i in range(n)]
def sy_inv(A):
    return sympy.Matrix([[sympy.Rational(x.numerator,x.denominator) for x in r] for r in A]).inv()
for n in (2,4,6,8):
    mats=[]
    while len(mats)<50:
        A=[[F(int(x),int(rng.integers(1,5))) for x in r] for r in rng.integers(-3,4,(n,n))]
        if fmpq_mat(n,n,[fmpq(x.numerator,x.denominator) for r in A for x in r]).det()!=0: mats.append(A)
    for name,f in (("flint",fl_inv),("fraction-gj",gj_inv),("sympy",sy_inv)):
        t=time.perf_counter(); [f(A) for A in mats]; dt=(time.perf_counter()-t)/50
        print(n,name,f"{dt*1e6:.0f} us")
