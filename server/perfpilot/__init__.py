"""PerfPilot: make C and C++ functions faster, and prove it by measurement."""

__version__ = "0.1.0"
