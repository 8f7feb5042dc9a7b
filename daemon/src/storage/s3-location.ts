/** `s3://bucket/some/prefix` → bucket and prefix (without slashes at either end); undefined for anything else. */
export function parseS3Location(location: string): { bucket: string; prefix: string } | undefined {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(location);
  if (!m) return undefined;
  return { bucket: m[1]!, prefix: m[2]!.replace(/^\/+|\/+$/g, '') };
}
