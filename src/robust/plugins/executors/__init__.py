"""Executors other than in-process, registered under the entry-point group `robust.executors` (not `robust`:
`robust list` never imports them, and they import what they need only when a run asks for them)."""
