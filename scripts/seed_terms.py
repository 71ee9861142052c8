"""Extract the technical terms of the seed notes into a committed list.

The glossary (``book/appendix_c_glossary.md``) must list every technical term that the
seeds use in their section headings and bold definitions. The seeds are not in a clone
of the repository (they live in ``../shared/seeds``), so this script extracts the terms
once into ``tests/data/seed_terms.tsv``, which is committed; ``tests/test_glossary.py``
compares the glossary with that list.

Usage::

    python scripts/seed_terms.py                  # write tests/data/seed_terms.tsv
    python scripts/seed_terms.py --check          # exit 1 if the committed list is stale
    python scripts/seed_terms.py --seeds DIR --out FILE

Rules (all mechanical; the exclusions below say why each is not a term):

* headings: Markdown headings (``#``) and numbered section lines (``1.``, ``2.3.1`` ...)
  whose title is short (at most 40 characters, a final gloss in parentheses not
  counted) and is a phrase, not a sentence or a
  formula (no ``$``, backslash, or Chinese sentence punctuation);
* bold definitions: ``**...**`` spans of at most 20 characters without mathematics;
* a trailing colon is dropped; a final parenthesised gloss such as ``多项式核函数 (polynomial
  kernel function)`` gives the term (the part before the parenthesis) and its gloss;
* duplicates are merged (the first seed that uses a term is recorded).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SEEDS = ROOT.parent / "shared" / "seeds"
DEFAULT_OUT = ROOT / "tests" / "data" / "seed_terms.tsv"

#: Headings and bold spans that are not technical terms, with the reason.
NOT_TERMS = {
    "概述": "'overview', a section title",
    "算法": "'algorithm', a section title",
    "参考资料": "'references'",
    "The key questions": "a section title",
    "核方法基础": "'basics of kernel methods', a section title",
    "核对齐基础": "'basics of kernel alignment', a section title",
    "输入": "'input', a step label of an algorithm",
    "输入向量表示": "'notation for the input vector', a paragraph label",
    "层表示": "'notation for layers', a paragraph label",
    "每层神经元表示": "'notation for the neurons of a layer', a paragraph label",
    "输出向量表示": "'notation for the output vector', a paragraph label",
    "权值表示": "'notation for the weights', a paragraph label",
    "前向过程": "'the forward pass', a paragraph label (the term is forward propagation)",
    "假定每一类数据都是正态分布": "a sentence ('assume each class is normal')",
    "两类都近似服从正态分布": "a sentence ('both classes are roughly normal')",
    "最优平面的支撑向量": "'the support vectors of the optimal plane', a section title",
    "样本到最优分界面的距离": "'distance from a sample to the optimal boundary', a section title",
    "寻找最优分界面": "'finding the optimal boundary', a section title",
    "核技巧在支持向量机中的应用": "'the kernel trick in SVMs', a section title",
    "正定核的定价定义": "a typo of 正定核的等价定义 ('equivalent definition of a PD kernel'), a title",
    "正定核的充要条件": "'necessary and sufficient condition for a PD kernel', a theorem title",
    "核函数定义": "'definition of a kernel', a title (the term is 核函数)",
    "映射函数定义": "'definition of a feature map', a title (the term is 映射函数)",
    "核函数的定义": "'the definition of a kernel', a title (the term is 核函数)",
    "非线性支持向量机学习算法": "'the nonlinear SVM learning algorithm', an algorithm title",
    "将 \\mathcal{S} 完备化构成希尔伯特空间": "a construction step",
    "典型的非线性分类器": "'typical nonlinear classifiers', the seed's title",
    "非线性支持向量机与核函数": "'nonlinear SVMs and kernels', a title joining two listed terms",
    "核对齐 (核函数) 定义": "'definition of alignment (of kernel functions)', a title",
    "核对齐 (核矩阵) 定义": "'definition of alignment (of kernel matrices)', a title",
    "构造决策函数": "'construct the decision function', a step of an algorithm",
    "多层感知器网络应用于模式识别": "'MLPs applied to pattern recognition', a section title",
    "核函数变换和支持向量机": "'kernel transformations and SVMs', a section title",
    "神经元与感知器": "'neurons and perceptrons', a title joining two terms (神经元, 感知器)",
    "一般的分段线性判别函数": "'general piecewise linear discriminants', a title (the term is listed)",
}

_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?\s*(.+?)\s*$")
_HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*$")
_BOLD = re.compile(r"\*\*(.+?)\*\*")
_SENTENCE = re.compile(r"[$\\；，。：、；]|[;,]\s")


def _clean(text: str) -> tuple[str, str]:
    text = text.strip().rstrip(":：").strip()
    m = re.match(r"^(.*?)\s*[（(]([^()（）]*)[)）]\s*$", text)
    if m and m.group(1).strip():
        return m.group(1).strip(), m.group(2).strip()
    return text, ""


def extract(seeds: Path) -> list[tuple[str, str, str, str]]:
    """Rows (term, gloss, kind, seed) in seed order."""
    rows: list[tuple[str, str, str, str]] = []
    seen: set[str] = set()
    for path in sorted(seeds.glob("[0-9][0-9][0-9]_*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            candidates = []
            m = _HEADING.match(line) or (None if line.startswith("**") else _NUMBERED.match(line))
            if m:
                title = m.group(m.lastindex)
                if "**" not in title and not _SENTENCE.search(title) and len(_clean(title)[0]) <= 40:
                    candidates.append(("heading", title))
            for b in _BOLD.findall(line):
                if len(b) <= 20 and "$" not in b:
                    candidates.append(("bold", b))
            for kind, raw in candidates:
                term, gloss = _clean(raw)
                if not term or term in NOT_TERMS or term in seen:
                    continue
                if re.match(r"^式\(|的推导$", term):  # "derivation of eq. (15)"
                    continue
                seen.add(term)
                rows.append((term, gloss, kind, path.name[:3]))
    return rows


def render(rows: list[tuple[str, str, str, str]]) -> str:
    out = ["# term\tgloss\tkind\tseed  (generated by scripts/seed_terms.py; do not edit)"]
    out += ["\t".join(r) for r in rows]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=Path, default=DEFAULT_SEEDS)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true", help="fail if the committed list differs")
    args = ap.parse_args(argv)
    if not args.seeds.is_dir():
        print(f"seed_terms: no seeds at {args.seeds}", file=sys.stderr)
        return 2
    text = render(extract(args.seeds))
    if args.check:
        ok = args.out.is_file() and args.out.read_text(encoding="utf-8") == text
        print("seed_terms: the committed list is " + ("current" if ok else "STALE"))
        return 0 if ok else 1
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(f"seed_terms: {text.count(chr(10)) - 1} terms -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
