#!/usr/bin/env python3
"""Derives mcp.search's general vocabulary (issue 19) from the WordNet 3.0 database.

Reads the noun and verb files of WordNet 3.0 (Debian's `wordnet-base` puts them in /usr/share/wordnet)
and writes one line per synset (a set of words with one meaning) that keeps at least two lemmas, nouns
first, then verbs, each in WordNet's order:

    lemma/sense lemma/sense ...

A lemma is lowercase, the words of a phrase joined by '_' ("put_off"); sense is the rank of this meaning
among the lemma's meanings of that part of speech (1 = the most frequent: WordNet's own order, from the
counts of its sense-tagged corpus). Kept: lemmas of letters only (with '_' or '-' between words) that are
lowercase in WordNet (proper names such as "Paris" or "Java" are capitalised there and left out), at most
three words. A synset of one kept lemma is left out: it has no synonym to offer. Hypernyms and other
pointers are not kept (they were measured and not chosen: bench/wordnet/RESULTS.md).

The output is gzipped (java.util.zip reads it), with WordNet's licence notice at its head as '#' lines.
Usage: derive.py [WORDNET_DIR] OUTPUT.gz
"""
import gzip
import os
import re
import sys

LEMMA = re.compile(r"^[a-z]+(?:[_-][a-z]+){0,2}$")

NOTICE = """WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.
Derived by bench/wordnet/derive.py from the noun and verb files of WordNet 3.0 (mcp.search's general
vocabulary): the synsets of two or more lemmas, with each lemma's sense rank. Licence: see WORDNET-LICENSE.txt
beside this file (Princeton's WordNet 3.0 licence, which allows redistribution with this notice).
THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR
WARRANTIES, EXPRESS OR IMPLIED."""


def records(path):
    """The fields of each record of a WordNet file (its licence lines start with a space), gloss left out."""
    with open(path, encoding="latin-1") as f:
        for line in f:
            if not line.startswith(" "):
                yield line.split(" | ")[0].split()


def read_index(path):
    """lemma -> list of synset offsets, in sense order."""
    senses = {}
    for parts in records(path):
        synset_cnt, p_cnt = int(parts[2]), int(parts[3])
        senses[parts[0]] = parts[6 + p_cnt:6 + p_cnt + synset_cnt]
    return senses


def read_data(path):
    """offset -> lemmas as written."""
    return {head[0]: [head[4 + 2 * i] for i in range(int(head[3], 16))] for head in records(path)}


def main():
    args = sys.argv[1:]
    wordnet = args[0] if len(args) == 2 else "/usr/share/wordnet"
    output = args[-1]
    lines = []
    for pos, name in (("n", "noun"), ("v", "verb")):
        senses = read_index(os.path.join(wordnet, "index." + name))
        rank = {}
        for lemma, offsets in senses.items():
            for i, offset in enumerate(offsets):
                rank[(lemma, offset)] = i + 1
        synsets = read_data(os.path.join(wordnet, "data." + name))
        for offset in sorted(synsets):
            lemmas = synsets[offset]
            words = []
            for written in lemmas:
                lemma = re.sub(r"\(.*\)$", "", written)  # adjective markers, e.g. "(p)"
                if not LEMMA.match(lemma):
                    continue
                sense = rank.get((lemma, offset))
                if sense is None:
                    continue
                entry = lemma + "/" + str(sense)
                if entry not in words:
                    words.append(entry)
            if len(words) >= 2:
                lines.append(words)
    with gzip.GzipFile(output, "wb", mtime=0) as out:
        for line in NOTICE.splitlines():
            out.write(("# " + line + "\n").encode("ascii"))
        for words in lines:
            out.write((" ".join(words) + "\n").encode("ascii"))
    print("%s: %d synsets, %d lemma senses, %d bytes" % (output, len(lines),
          sum(len(w) for w in lines), os.path.getsize(output)), file=sys.stderr)


if __name__ == "__main__":
    main()
