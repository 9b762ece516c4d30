/** host:port of a URL, leaving out credentials and options. */
export function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url.replace(/^[a-z+]+:\/\/([^@/]*@)?/i, '').split('/')[0] ?? url;
  }
}
