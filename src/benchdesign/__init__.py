"""benchdesign: rank-preserving dataset selection and leakage-reduced data splitting."""

__version__ = "0.2.0"
