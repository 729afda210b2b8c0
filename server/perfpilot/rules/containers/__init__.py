"""Rules about standard containers and strings: the right container, reserved growth,
no copies, no temporaries, no front insertions; with the proofs only they use.
"""
