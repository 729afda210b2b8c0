"""What calls do to memory: one table, in named sets, for every analysis and rule.

Each set answers one question, and the questions differ: a loop may run in parallel only when its
calls have *no side effects at all*; a value may be computed once before a loop when the calls
that read it *never write memory* (printing is fine there, it changes no variable). Names are
unqualified callee names (``std::sqrt`` is looked up as ``sqrt``).
"""

from __future__ import annotations

# Free functions with no side effects at all: no memory written, no I/O, no global state
# changed. Their calls may appear in a loop whose iterations run in parallel.
NO_SIDE_EFFECTS = frozenset({
    "sqrt", "sqrtf", "sqrtl", "cbrt", "sin", "sinf", "cos", "cosf", "tan", "tanf", "asin", "acos",
    "atan", "atan2", "sinh", "cosh", "tanh", "exp", "expf", "exp2", "expm1", "log", "logf",
    "log2", "log10", "log1p", "fabs", "fabsf", "abs", "labs", "llabs", "pow", "powf", "hypot",
    "floor", "ceil", "round", "trunc", "fmod", "fmin", "fmax", "fma", "erf", "erfc", "min", "max",
    "isnan", "isinf", "isfinite", "copysign", "lround", "llround", "static_cast", "ldexp",
    "asinh", "acosh", "atanh", "fdim", "remainder", "rint", "nearbyint", "signbit", "clamp",
    "fminf", "fmaxf", "floorf", "ceilf", "roundf", "truncf", "hypotf", "atan2f", "cbrtf",
    # <complex>: values in, value out
    "conj", "norm", "arg", "real", "imag", "polar", "proj",
    # <cctype>: they read the locale, and change nothing
    "toupper", "tolower", "isalpha", "isdigit", "isalnum", "isspace", "isupper", "islower",
    "ispunct", "isxdigit", "isprint", "iscntrl", "isgraph", "isblank",
})

# Free functions that never write memory the caller can see (they may print: ``printf`` writes
# to a stream, not to a variable). A value they read stays unchanged across their calls.
NEVER_WRITES_MEMORY = frozenset({
    "strlen", "strchr", "strcmp", "strncmp", "memcmp", "abs", "labs", "llabs", "fabs", "fabsf",
    "sqrt", "sqrtf", "cbrt", "pow", "powf", "exp", "expf", "exp2", "log", "logf", "log2", "log10",
    "sin", "cos", "tan", "sinf", "cosf", "atan", "atan2", "floor", "ceil", "round", "fmin", "fmax",
    "min", "max", "hypot", "isdigit", "isalpha", "isspace", "isupper", "islower", "toupper",
    "tolower", "size", "begin", "end", "printf", "fprintf", "puts", "putchar", "to_string",
    "static_cast", "sizeof", "distance", "make_pair", "get",
})

# Standard algorithms that only read the ranges they are given.
READS_ITS_RANGES_ONLY = frozenset({
    "find", "find_if", "find_if_not", "count", "count_if", "accumulate", "min_element",
    "max_element", "minmax_element", "all_of", "any_of", "none_of", "equal", "lower_bound",
    "upper_bound", "binary_search", "equal_range", "distance", "search", "mismatch", "includes",
    "is_sorted", "inner_product", "reduce", "for_each", "copy", "strlen", "memcmp",
})

# Of those, the ones that return a value computed from the ranges (and the functions given to
# them) and do nothing else: no output iterator, no function applied for its effect. A call of
# one whose arguments a loop never changes gives the same result on every iteration.
PURE_RANGE_SCANS = frozenset({
    "accumulate", "reduce", "inner_product", "count", "count_if", "all_of", "any_of", "none_of",
    "find", "find_if", "find_if_not", "min_element", "max_element",
})

# Methods that report a container's size and read nothing else of it, by what they answer:
# the number of elements (a value index arithmetic can use), that number or whether it is zero,
# and with the room reserved (none of them returns an address or an element).
ELEMENT_COUNT_METHODS = frozenset({"size", "length"})
SIZE_METHODS = ELEMENT_COUNT_METHODS | {"empty"}
SIZE_OR_CAPACITY_METHODS = SIZE_METHODS | {"capacity", "max_size"}

# Methods that only read their object (const members of the standard containers, strings and
# streams), so calling them on a shared object changes nothing.
READ_ONLY_METHODS = SIZE_OR_CAPACITY_METHODS | {
    "begin", "end", "cbegin", "cend", "rbegin", "rend", "crbegin",
    "crend", "find", "count", "contains", "at", "front", "back", "data", "c_str", "substr",
    "compare", "lower_bound", "upper_bound", "equal_range", "top",
    "find_first_of", "find_last_of", "find_first_not_of", "find_last_not_of", "rfind",
    "starts_with", "ends_with", "str", "get", "value", "first", "second", "key_comp",
    "test", "any", "none", "all",
}

# The narrower set the loop-independence proof trusts: what a shared object's method may be and
# still leave parallel iterations apart (user types reuse names such as ``get`` and ``value``
# for calls with effects, so only the plain container accessors count).
PARALLEL_SAFE_METHODS = SIZE_METHODS | {
    "capacity", "at", "front", "back", "data", "c_str", "find",
    "count", "contains", "begin", "end", "cbegin", "cend", "rbegin", "rend", "substr", "compare",
    "real", "imag",
}

# Const members of the standard containers and strings: what may be called on an object that
# becomes ``const`` (a parameter taken by const reference, a copy made a const reference).
CONST_METHODS = PARALLEL_SAFE_METHODS | {
    "lower_bound", "upper_bound", "equal_range", "crbegin", "crend", "max_size", "sum", "min",
    "max", "rfind", "find_first_of", "find_last_of", "find_first_not_of", "find_last_not_of",
    "starts_with", "ends_with", "key_comp",
}

# Methods that return an iterator or pointer to the object's elements.
ITERATOR_METHODS = frozenset({
    "begin", "end", "cbegin", "cend", "rbegin", "rend", "crbegin", "crend", "data",
})

# Of the const members, the ones whose result is an iterator or pointer into the object
# (writing through it, or keeping it, is a use of the object itself).
POSITION_METHODS = ITERATOR_METHODS | {"c_str", "find", "lower_bound", "upper_bound",
                                       "equal_range"}

# Methods that return one element (a reference into the object).
ELEMENT_METHODS = frozenset({"at", "front", "back"})

# Methods of the standard containers and strings that store a copy of the values they are given.
STORES_ITS_ARGUMENTS = frozenset({
    "push_back", "emplace_back", "push_front", "emplace_front", "push", "emplace", "insert",
    "append", "assign",
})

# Methods of the standard containers and strings that take their arguments by value or const
# reference and keep at most a copy of them (the object they are called on may change).
COPIES_ITS_ARGUMENTS = STORES_ITS_ARGUMENTS | {
    "count", "find", "contains", "compare", "lower_bound", "upper_bound", "equal_range",
}

# Methods that add one element at the end.
APPEND_METHODS = frozenset({"push_back", "emplace_back"})

# Methods that touch only the back of a sequence (a position counted from its front stays).
BACK_METHODS = APPEND_METHODS | {"back"}

# Methods that change only the room a container reserves, never its elements.
CAPACITY_CHANGES = frozenset({"reserve", "shrink_to_fit"})

# Methods that change a container's length or replace its elements.
RESIZING_METHODS = frozenset({
    "push_back", "emplace_back", "pop_back", "resize", "clear", "assign", "insert", "erase",
    "emplace", "swap",
})

# Methods that change only their own object, whatever their arguments.
OWN_CHANGES = COPIES_ITS_ARGUMENTS | CAPACITY_CHANGES | {
    "clear", "resize", "pop_back", "pop_front", "pop",
}

# Of those, the ones that grow, shrink or empty a sequence at its end, reading only the value
# they are given.
SEQUENCE_END_CHANGES = APPEND_METHODS | {"pop_back", "clear", "reserve"}

# Names whose calls (or stream objects) do input or output.
DOES_IO = frozenset({
    "cout", "cin", "cerr", "clog", "printf", "scanf", "puts", "putchar", "getchar", "fprintf",
    "fscanf", "fputs", "fgets", "gets", "getline", "fwrite", "fread", "write", "read",
})
