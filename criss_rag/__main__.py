from criss_rag.cli import main

main()
