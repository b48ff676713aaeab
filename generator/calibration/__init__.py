"""Judge calibration against humans (DESIGN §12).

``agreement`` computes, per criterion type, the humans' agreement with each other and
each judge's with each human and with the human consensus; ``rule`` applies the
pre-registered acceptance rule; ``design`` checks the sample against its declaration;
``check`` runs all three for a volume (the ``agreement`` gate calls it); ``corpus`` writes
the public calibration corpus.
"""
