"""The table page: static HTML, CSS and JavaScript modules served by the API itself."""
