"""Rewrite code shared by the rules of one theme; each rule module names its rewrite here."""
