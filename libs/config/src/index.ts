/**
 * The settings loader: each library declares its environment variables as a settings group
 * (TypeBox schemas, defaults, its slice); an app composes the groups it runs and loads them once
 * (loadSettings). docs/configuration.md lists every variable and the library that owns it.
 */
export * from './settings';
