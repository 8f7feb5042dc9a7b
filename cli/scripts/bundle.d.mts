export declare const cliRoot: string;
export declare function bundleCli(opts: { outdir: string; bundleSdk?: boolean; minify?: boolean }): Promise<void>;
