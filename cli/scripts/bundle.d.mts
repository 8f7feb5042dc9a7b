export declare const cliRoot: string;
export declare const LAZY_PACKAGES: string[];
export declare function bundleCli(opts: { outdir: string; minify?: boolean }): Promise<void>;
