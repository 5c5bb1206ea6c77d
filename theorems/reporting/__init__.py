"""Reports from a run: JSON (with its schema), Markdown, HTML (with the plots), JUnit XML,
Hypothesis observations, the comparison of two reports, the report folder and the
console progress."""
