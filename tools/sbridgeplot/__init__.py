"""sbridge-plot: pictures and a Perfetto trace from `sbridgectl record` files
(docs/record-format.md)."""
