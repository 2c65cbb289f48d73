"""benchdesign: rank-preserving dataset selection and leakage-reduced data splitting."""

__version__ = "0.1.0"
