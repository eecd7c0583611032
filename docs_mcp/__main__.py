from docs_mcp.cli import main

main()
