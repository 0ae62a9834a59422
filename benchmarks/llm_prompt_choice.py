"""How the default prompt of `prompt:` was chosen: zero-shot accuracy of nine instruction/template pairs for an LM
on the first N sentences of MR's *training* split (never the test split the docs report on), raw and calibrated.

    python benchmarks/llm_prompt_choice.py [--lm smollm2] [--n 200] [--shots 0]
"""

from __future__ import annotations

import argparse

PROMPTS = {
    "generic": ("Classify each text as {labels}.", "Text: {text}\nAnswer:"),
    "generic-label": ("Classify each text as {labels}.", "Text: {text}\nLabel:"),
    "sentiment": ("Classify the sentiment of each text as {labels}.", "Text: {text}\nAnswer:"),
    "generic-text": ("Classify the sentiment of each text.", "Text: {text}\nSentiment:"),
    "review": ("Classify the sentiment of each movie review as {labels}.", "Review: {text}\nSentiment:"),
    "sent-review": ("Classify the sentiment of each movie review.", "Review: {text}\nSentiment:"),
    "q-review": ("Is the sentiment of each movie review positive or negative?", "Review: {text}\nSentiment:"),
    "labels-review": ("Each review's sentiment is {labels}.", "Review: {text}\nSentiment:"),
    "plain": ("", "Review: {text}\nSentiment:"),
}


def main() -> None:
    import numpy as np
    import torch

    from robust import load_examples
    from robust.core.context import RunContext
    from robust.core.plugins import get_registry

    parser = argparse.ArgumentParser()
    parser.add_argument("--lm", default="smollm2")
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--shots", type=int, default=0)
    args = parser.parse_args()
    torch.set_num_threads(1)
    registry = get_registry()
    ctx = RunContext("prompt-choice", 0, None, registry, data="mr")
    examples = load_examples("mr-train", ctx, limit=args.n)
    texts = [ex.text for ex in examples]
    print(f"{args.lm}, {args.shots}-shot, first {len(texts)} sentences of mr-train")
    print("| prompt | instruction | template | accuracy | calibrated | share predicted positive |")
    print("|---|---|---|---|---|---|")
    for name, (instruction, template) in PROMPTS.items():
        accuracies, share = [], 0.0
        for calibrate in (False, True):
            model = registry.model(f"prompt:{args.lm}", instruction=instruction, template=template,
                                   shots=args.shots, calibrate=calibrate).bind(ctx)
            pred = [model.labels[i] for i in model.classify(texts).argmax(1)]
            accuracies.append(float(np.mean([p == ex.label for p, ex in zip(pred, examples)])))
            share = share if calibrate else float(np.mean([p == "positive" for p in pred]))
        shown = template.replace("\n", "\\n")
        print(f"| {name} | {instruction} | {shown} | {accuracies[0]:.3f} | {accuracies[1]:.3f} | {share:.2f} |",
              flush=True)


if __name__ == "__main__":
    main()
