"""The PostgreSQL servers Senki uses: an external URL, or the embedded server it runs."""
