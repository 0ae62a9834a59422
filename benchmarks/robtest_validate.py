"""RobTest against a real victim: does robustness fall with the degree, and is score-based access at least as
strong as rule-based at equal degree? Prints the report tables and the checks as Markdown.

    python benchmarks/robtest_validate.py --attack typo --n 100 --aug-num 20 [--model probe:minilm]

Victim default: probe:minilm (MiniLM sentence embeddings + logistic regression trained on the MR training
split); data: the MR test split (sampled with random.seed(123) as in the paper's code).
"""

from __future__ import annotations

import os

from robtest_common import loaded_victim, plugin_settings, run_robtest, victim_parser


def _table(table) -> str:
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in table.rows]
    return "\n".join(lines)


def main() -> None:
    parser = victim_parser(__doc__.splitlines()[0], model="probe:minilm", attack="typo", n=100, aug_num=20,
                           threads=2)
    parser.add_argument("--variant", default="clean")
    parser.add_argument("--stop-on-flip", action="store_true", help="score-based: stop at the first flip")
    args = parser.parse_args()
    model, stats = loaded_victim(args)
    result, _, seconds = run_robtest(model, args.attack, plugin_settings=plugin_settings(args), n=args.n,
                                     aug_num=args.aug_num, variant=args.variant, stop_on_flip=args.stop_on_flip)
    data = result.data
    print(f"model {model.identity}; data {data['settings']['data']}; n={args.n}; aug_num={args.aug_num}; "
          f"variant {args.variant}; stop_on_flip {args.stop_on_flip}; {seconds:.0f} s, {stats.texts} victim queries, "
          f"load average {os.getloadavg()[0]:.1f}\n")
    print(f"clean accuracy {data['clean_accuracy']:.1f}\n")
    for table in result.tables:
        print(f"### {table.title}\n\n{_table(table)}\n")
    print("### Checks\n")
    print("| tag | access | metric | value(0) | value(0.6) | falls | rises between degrees |")
    print("|---|---|---|---|---|---|---|")
    for tag, by_access in data["curves"].items():
        for access, curves in by_access.items():
            for metric, values in curves.items():
                rises = sum(b > a + 1e-9 for a, b in zip(values, values[1:], strict=False))
                print(f"| {tag} | {access} | {metric} | {values[0]:.1f} | {values[-1]:.1f} | "
                      f"{values[-1] < values[0]} | {rises} |")
    print("\n| tag | degree | Rule-Average | Score-Average | score at least as strong |")
    print("|---|---|---|---|---|")
    for tag, by_access in data["curves"].items():
        if "score" not in by_access:
            continue
        for d, r, s in zip(data["degrees"], by_access["rule"]["average"], by_access["score"]["average"],
                           strict=True):
            if d > 0:
                print(f"| {tag} | {d:g} | {r:.1f} | {s:.1f} | {s <= r + 1e-9} |")


if __name__ == "__main__":
    main()
