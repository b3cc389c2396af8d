from simulacra.cli import main

main()
