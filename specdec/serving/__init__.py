"""Speculation in a serving system: batching, regimes, goodput and the speculation length.

Its modules:

- ``deployment``: speculation on the roofline under batching (latency, throughput, the break-even batch);
- ``regimes``: where speculation helps, is neutral or hurts, and capacity planning;
- ``goodput``: continuous batching, throughput at a per-token latency target, with prefill;
- ``dynamic``: dynamic speculation length (the oracle bound, Hugging Face's schedule).

Part II and chapter "Throughput at a latency target" explain it.
"""
