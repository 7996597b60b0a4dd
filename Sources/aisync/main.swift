import AISyncCLI

await CommandLineTool.main()
