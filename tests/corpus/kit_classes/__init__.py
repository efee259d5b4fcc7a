"""Example corpus of issue 27 part 2: classes, tables and objects as modules use them."""
