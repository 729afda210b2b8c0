"""Where the time goes: run a program under a profiler, or read a profile, per source function."""
