from repodigest.cli import main

main()
