/**
 * How an operator's command (`npm run clients`, `npm run planning`) ends on a mistake: the message on
 * stderr (on stdout for `--help`, code 0), and the exit code, 2 for a wrong use unless told otherwise.
 * `exit` is the command's own (`process.exit`): only an entry point ends the process.
 */
export function commandLine(
  usage: string,
  exit: (code: number) => never,
): {
  fail(message: string, code?: number): never;
  required<T>(value: T | undefined, what: string): T;
} {
  function fail(message: string, code = 2): never {
    (code === 0 ? console.log : console.error)(message);
    return exit(code);
  }
  return {
    fail,
    required(value, what) {
      if (value === undefined) fail(`${what} is required\n${usage}`);
      return value;
    },
  };
}
