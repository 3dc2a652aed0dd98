-- The plugin's version; `vibing-agent version` must report the same.
return "0.1.0"
