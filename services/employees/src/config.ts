import { readConfig, serviceConfigSpec, type Config } from '@rm/service-kit';

const employeesConfigSpec = serviceConfigSpec({ PORT: 3001, MONGO_DB: 'employees' });

export type EmployeesConfig = Config<typeof employeesConfigSpec>;

/** Throws a ConfigError naming every missing or bad variable. */
export function readEmployeesConfig(env: NodeJS.ProcessEnv = process.env): EmployeesConfig {
  return readConfig(employeesConfigSpec, env);
}
