"""The engine: the claim and evidence model, the registry, the runner, the implementation
under test (``Impl``), the profiles, the tolerance model and the residuals."""
