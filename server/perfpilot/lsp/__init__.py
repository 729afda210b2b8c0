"""The language server: translates LSP to engine calls and engine results to LSP."""
