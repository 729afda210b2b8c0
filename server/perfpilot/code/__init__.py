"""Understanding C and C++ source: locating functions, splicing rewrites, compile flags."""
