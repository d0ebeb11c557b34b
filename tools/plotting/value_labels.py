"""Short, distinct labels for the values of one sweep key. A JSON object is reduced to the fields
that differ between the key's values ("kind" first, bare), so a legend reads "choco, gamma = 0.05"
instead of the whole object; what every value shares is said once, elsewhere, or not at all."""

import json

MAX_CHARS = 48  # a longer label loses its last fields to "…" (if the labels stay distinct)
_ABSENT = object()


def short_labels(texts):
    """{text: label} for the distinct raw sweep.csv texts of one key (JSON, or plain strings)."""
    texts = list(dict.fromkeys(texts))
    flat = {t: _flatten(_parse(t)) for t in texts}
    paths = list(dict.fromkeys(p for f in flat.values() for p in f))
    differ = [p for p in paths if len({_key(f.get(p, _ABSENT)) for f in flat.values()}) > 1]
    # An object's kind first: it names the thing; its fields after it.
    differ.sort(key=lambda p: [q if q != "kind" else "" for q in p.split(".")])
    names = _field_names(differ)
    labels = {t: _render(flat[t], differ, names) or _compact(t) for t in texts}
    if len(set(labels.values())) < len(texts):  # fields dropped made two alike: say it all
        labels = {t: _compact(t) for t in texts}
    cut = {t: _cut(label) for t, label in labels.items()}
    return cut if len(set(cut.values())) == len(texts) else labels


def _parse(text):
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text  # a plain string cell (sweep.csv writes strings unquoted)


def _flatten(value, prefix=""):
    """{dotted path: leaf}; a scalar (or null) is the leaf at path ''."""
    if isinstance(value, dict) and value:
        out = {}
        for k, v in value.items():
            out.update(_flatten(v, f"{prefix}.{k}" if prefix else k))
        return out
    if isinstance(value, list) and value:
        out = {}
        for i, v in enumerate(value):
            out.update(_flatten(v, f"{prefix}.{i}" if prefix else str(i)))
        return out
    return {prefix: value}


def _key(leaf):
    return "<absent>" if leaf is _ABSENT else json.dumps(leaf, sort_keys=True)


def _field_names(paths):
    """The last part of each path ('compression.fraction' -> 'fraction') unless two share it; a
    nested kind is named by its object ('compression.kind' -> 'compression'), list entries by
    index ('compression.0.kind' -> 'compression[0]')."""
    named = [p.rsplit(".", 1)[0] if p.endswith(".kind") else p for p in paths]
    shown = [_display(n.split(".")) for n in named]
    last = [_display(n.split(".")[-2:] if n.split(".")[-1].isdigit() else n.split(".")[-1:])
            for n in named]
    return {p: (lp if last.count(lp) == 1 else s) for p, s, lp in zip(paths, shown, last)}


def _display(parts):
    return "".join(f"[{q}]" if q.isdigit() and i else f".{q}" if i else q
                   for i, q in enumerate(parts))


def _render(fields, differ, names):
    parts = []
    for p in differ:
        if p not in fields:
            continue
        leaf = fields[p]
        text = "none" if leaf is None else leaf if isinstance(leaf, str) else json.dumps(leaf)
        bare = p in ("", "kind")
        parts.append(text if bare else f"{names[p]} = {text}")
    return ", ".join(parts)


def _compact(text):
    value = _parse(text)
    if value is None:
        return "none"
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))


def _cut(label):
    if len(label) <= MAX_CHARS:
        return label
    parts, out = label.split(", "), ""
    for part in parts:
        if len(out) + len(part) + 3 > MAX_CHARS:
            break
        out = f"{out}, {part}" if out else part
    return (out or label[: MAX_CHARS - 1]) + "…"
