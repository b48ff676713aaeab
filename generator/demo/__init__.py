"""The example publication: declared data, content, a seeded simulation and a writer."""
