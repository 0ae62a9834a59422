"""Placeholder until this plugin lands."""
