"""Nightly balance batches: suites as config, paired comparisons with the previous batch and a
pinned baseline, alerts, and a dated folder of reports."""
