"""Detections of the advice-only rules, by theme, and the wording helpers (``common``) that
every detection shares; each rule module names its detection here."""
