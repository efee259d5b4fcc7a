"""Example corpus of issue 27 part 2 items 2-3: decorated helpers, which the static compile
resolves as the decorator does, and NormalDist objects, which it leaves to the decorator."""
