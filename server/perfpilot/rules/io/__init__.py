"""Rules about I/O in loops: ``std::endl``, synchronized iostreams, stdio per element.
"""
