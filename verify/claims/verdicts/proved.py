"""The one question the document and the lemma bookkeeping ask of a verdict: is it PROVED, and assuming what."""


def proved_assuming(verdict):
    """The lemmas taken as given a PROVED verdict rests on — () for a plain PROVED — or None when the verdict is
    not PROVED at all."""
    text = str(verdict)
    if not text.startswith("PROVED"):
        return None
    return tuple(text.partition(" assuming ")[2].split(", ")) if " assuming " in text else ()
