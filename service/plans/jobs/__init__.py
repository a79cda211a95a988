"""Plan jobs (issue 28): plans, previews, workbooks, PDFs and waterfalls computed once by
workers off the request, their state and results kept in the database.

- ``queue``: the Huey instance (SQLite storage embedded by default, Redis on several machines).
- ``records``: the job rows: request, admit, claim, heartbeat, fenced writes, reap.
- ``compute``: what a job's child process computes (no database, no Flask).
- ``runner``: the Huey task: claims a job, runs its child under a budget, stores the result.
- ``worker``: ``buyrent worker``: the consumer threads and the reaper.
"""
