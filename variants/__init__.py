"""Sibling variants of RBC on the arbiter's rules seam: Mini-Chess (5x6) and the small teaching boards."""
