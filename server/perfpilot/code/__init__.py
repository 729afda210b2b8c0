"""Understanding C and C++ source: locating functions, splicing rewrites, the one fact model of a
function, and the proofs that rules of more than one family share."""
