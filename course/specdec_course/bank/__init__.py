"""The book's exercises, one module per chapter: the data of the course tooling.

``p<part>_<chapter slug>.py`` (``start_<slug>.py`` for the unnumbered "Start here" chapter) registers
that chapter's exercises with ``specdec_course.register``; each reference answer is computed through
``specdec`` from the exercise's inputs. ``specdec_course`` imports every module here when it is imported.
"""
