"""Example corpus of issue 27 part 2 item 1: tables given per call as parameters of the marked
functions, and a class of constants holding tables."""
