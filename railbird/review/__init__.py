"""Post-match review: annotated video, shot diagrams, the match report and exports.

`railbird.review.run.review` is the entry point (`railbird review RECORDING --out DIR`).
"""
