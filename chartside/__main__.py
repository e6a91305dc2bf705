from chartside.cli import main

main()
