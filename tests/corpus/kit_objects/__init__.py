"""Example corpus of issue 27 part 2 items 2-3: decorated helpers and NormalDist objects, which
the static compile leaves to the decorator."""
