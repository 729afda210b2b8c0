"""The detectors, one module per theme; ``ALL_DETECTORS`` lists them in a stable order."""
