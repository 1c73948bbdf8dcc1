"""Scripts that build what the repository keeps built: example notebooks, the extension."""
