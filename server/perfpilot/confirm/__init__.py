"""End-to-end confirmation: a rewrite judged by the user's whole program, built their way."""
