"""Algorithms shared by plugins: text measures and word edits, batched attack search, bootstrap statistics."""
