"""A small quantitative-finance and public-finance package, written for this repository in the
styles real projects of these domains use (pricing libraries, tax-benefit microsimulation models,
pure-Python statistics fallbacks, calendar arithmetic, series and iterations of numerical
libraries, actuarial tables). Its functions are plain scalar Python: nothing here is marked;
tests/corpus/test_scout_fin_corpus.py vectorizes each one with the decorator and compiles it
statically as the import hook would."""

__version__ = "0.1.0"
