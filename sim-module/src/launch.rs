pub struct Launch; pub struct LaunchError;
