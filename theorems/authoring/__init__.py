"""Writing claims: the templates (one entry point per kind), the kit of shared building
blocks, the Hypothesis strategies, the measured-design questions and the exact cases."""
